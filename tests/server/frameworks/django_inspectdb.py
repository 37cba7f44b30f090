"""Django's inspectdb (with views) on an application database: the models
it would write for what it finds.

Usage: django_inspectdb.py SOCKDIR PORT DBNAME
"""
import sys

import django
from django.conf import settings
from django.core.management import call_command

sockdir, port, dbname = sys.argv[1:4]
settings.configure(
    DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": dbname,
                           "USER": "postgres", "HOST": sockdir, "PORT": port}},
    INSTALLED_APPS=[], USE_TZ=True)
django.setup()
call_command("inspectdb", include_views=True, stdout=sys.stdout)
