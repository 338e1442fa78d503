"""Django settings of test_django: the test database (created by ./run,
with the extension), reached through libpq's PG* environment variables,
and the one app of the test models."""

import os

SECRET_KEY = "simhash-client-test"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("SIMHASH_PY_DB", "simhash_python_test"),
    }
}
INSTALLED_APPS = ["simhash_django_app"]
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
