"""The models of test_django: a fingerprint of each width, each with the
index class a near-duplicate search wants (GIN for radii, GiST for
nearest neighbours)."""

from django.contrib.postgres.indexes import GinIndex, GistIndex
from django.db import models

from simhash_pg.django import SimhashField


class Doc(models.Model):
    body = models.TextField()
    fp = SimhashField(null=True)
    fp128 = SimhashField(bits=128, null=True)
    fp256 = SimhashField(bits=256, null=True)

    class Meta:
        indexes = [
            GinIndex(fields=["fp"], name="doc_fp_gin", opclasses=["simhash_gin_ops"]),
            GinIndex(fields=["fp128"], name="doc_fp128_gin", opclasses=["simhash128_gin_ops"]),
            GinIndex(fields=["fp256"], name="doc_fp256_gin", opclasses=["simhash256_gin_ops"]),
            GistIndex(fields=["fp256"], name="doc_fp256_gist", opclasses=["simhash256_gist_ops"]),
        ]
