-- test/demo/corpus.sql: a small corpus for the demo's report, as
-- demo/corpus.pl would load it (source, name, body): manual pages of six
-- subcommands of one tool, generated from one template (each names its own
-- noun), and a document with an edited copy under another name; plus
-- unrelated documents.
INSERT INTO docs (source, name, body)
SELECT 'file', format('man/gcloud_compute_%s_list.1', noun),
       format($t$NAME
    gcloud compute %1$s list - list Google Compute Engine %1$s

SYNOPSIS
    gcloud compute %1$s list [NAME ...] [--filter=EXPRESSION] [--limit=LIMIT]
        [--page-size=PAGE_SIZE] [--sort-by=[FIELD,...]] [--uri] [GCLOUD_WIDE_FLAG ...]

DESCRIPTION
    gcloud compute %1$s list displays all Google Compute Engine %1$s in a project.
    By default, %1$s from all zones are listed. The results can be filtered
    with --filter and sorted with --sort-by.

POSITIONAL ARGUMENTS
    [NAME ...]
        (DEPRECATED) If provided, show details for the specified names and/or
        URIs of resources. Argument NAME is deprecated. Use --filter instead.

LIST COMMAND FLAGS
    --filter=EXPRESSION
        Apply a Boolean filter EXPRESSION to each resource item to be listed.
        If the expression evaluates True, then that item is listed.
    --limit=LIMIT
        Maximum number of resources to list. The default is unlimited.
    --page-size=PAGE_SIZE
        Some services group resource list output into pages. This flag
        specifies the maximum number of resources per page.
    --sort-by=[FIELD,...]
        Comma-separated list of resource field key names to sort by.
    --uri
        Print a list of resource URIs instead of the default output.

GCLOUD WIDE FLAGS
    These flags are available to all commands: --access-token-file, --account,
    --billing-project, --configuration, --flags-file, --flatten, --format,
    --help, --impersonate-service-account, --log-http, --project, --quiet,
    --trace-token, --user-output-enabled, --verbosity.

NOTES
    These variants are also available: gcloud alpha compute %1$s list and
    gcloud beta compute %1$s list.
$t$, noun)
  FROM unnest(ARRAY['instances', 'disks', 'snapshots', 'routers', 'networks', 'addresses']) noun;

INSERT INTO docs (source, name, body) VALUES
('file', 'notes/meeting-minutes.txt', $t$The working group met on Thursday to review the migration plan for the
archive servers. The storage team reported that the new cluster passed its
load tests and can take the nightly backups from the first of next month.
The network team asked for two more weeks to move the firewall rules, and
the group agreed to keep the old servers running until the rules are moved.
Costs stay within the budget approved in spring. The next meeting reviews
the backup restore drill and the plan for retiring the tape library.$t$);
-- the final minutes: an edited copy under another name
INSERT INTO docs (source, name, body)
SELECT 'file', 'notes/meeting-minutes-final.txt', replace(body, 'asked for two more weeks', 'asked for three more weeks')
FROM docs WHERE name = 'notes/meeting-minutes.txt';
INSERT INTO docs (source, name, body) VALUES
('file', 'notes/recipe.txt', $t$Mix the flour, the sugar and a pinch of salt, rub in the cold butter
until the mixture looks like breadcrumbs, then add the egg and knead
briefly. Rest the dough for an hour before rolling it out.$t$),
('file', 'notes/letter.txt', $t$Dear neighbours, the street party takes place on the last Saturday of
June. Please bring a dish to share and a chair; the children's games
start at three and the band plays from seven until ten.$t$);
