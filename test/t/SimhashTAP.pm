# SimhashTAP: what the TAP tests of test/t/ share.
#
#   start_node(NAME, CONF)  a new cluster NAME with CONF appended to its
#                           postgresql.conf, started
#   radius_sql(WHERE)       per query of table queries (qid, qfp, k): its
#                           id, how many rows of docs (id, fp) satisfy
#                           WHERE and their ids, one line per query
#   knn_sql()               per query: the distances of the 10 nearest
#                           rows of docs, one line per query
package SimhashTAP;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Cluster;

our @EXPORT = qw(start_node radius_sql knn_sql);

sub start_node
{
	my ($name, $conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', $conf);
	$node->start;
	return $node;
}

sub radius_sql
{
	my ($where) = @_;
	return "SELECT q.qid || '|' || s.n || '|' || coalesce(s.ids, '') FROM queries q "
	  . "CROSS JOIN LATERAL (SELECT count(*) AS n, string_agg(d.id::text, ',' ORDER BY d.id) AS ids "
	  . "FROM docs d WHERE $where) s ORDER BY q.qid";
}

sub knn_sql
{
	return "SELECT q.qid || '|' || s.dists FROM queries q CROSS JOIN LATERAL "
	  . "(SELECT string_agg(t.dist::text, ',') AS dists FROM (SELECT d.fp <-> q.qfp AS dist "
	  . "FROM docs d ORDER BY d.fp <-> q.qfp LIMIT 10) t) s ORDER BY q.qid";
}

1;
