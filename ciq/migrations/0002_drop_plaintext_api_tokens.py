"""API tokens moved from DRF's authtoken (plaintext keys) to django-rest-knox (hashed):
the old table's keys would still be readable in the database and any dump of it."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("ciq", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL("DROP TABLE IF EXISTS authtoken_token", reverse_sql=migrations.RunSQL.noop),
    ]
