# Written by makemigrations (Django 3.2), then the CreateExtension added:
# the simhash types exist before the table that uses them.

import django.contrib.postgres.indexes
from django.contrib.postgres.operations import CreateExtension
from django.db import migrations, models
import simhash_pg.django


class Migration(migrations.Migration):

    initial = True

    dependencies = [
    ]

    operations = [
        CreateExtension('simhash'),
        migrations.CreateModel(
            name='Doc',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('body', models.TextField()),
                ('fp', simhash_pg.django.SimhashField(null=True)),
                ('fp128', simhash_pg.django.SimhashField(bits=128, null=True)),
                ('fp256', simhash_pg.django.SimhashField(bits=256, null=True)),
            ],
        ),
        migrations.AddIndex(
            model_name='doc',
            index=django.contrib.postgres.indexes.GinIndex(fields=['fp'], name='doc_fp_gin', opclasses=['simhash_gin_ops']),
        ),
        migrations.AddIndex(
            model_name='doc',
            index=django.contrib.postgres.indexes.GinIndex(fields=['fp128'], name='doc_fp128_gin', opclasses=['simhash128_gin_ops']),
        ),
        migrations.AddIndex(
            model_name='doc',
            index=django.contrib.postgres.indexes.GinIndex(fields=['fp256'], name='doc_fp256_gin', opclasses=['simhash256_gin_ops']),
        ),
        migrations.AddIndex(
            model_name='doc',
            index=django.contrib.postgres.indexes.GistIndex(fields=['fp256'], name='doc_fp256_gist', opclasses=['simhash256_gist_ops']),
        ),
    ]
