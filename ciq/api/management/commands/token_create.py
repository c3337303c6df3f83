"""``manage.py token_create USERNAME``: print a new API token for the user, once."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from ciq.api.tokens import token_create


class Command(BaseCommand):
    help = ("Create an API token for USERNAME and print it. It is stored hashed: this is "
            "the only time it is shown. It expires after API_TOKEN_TTL_HOURS.")

    def add_arguments(self, parser):
        parser.add_argument("username")

    def handle(self, *args, username, **options):
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is None:
            raise CommandError(f"No active user {username!r}.")
        instance, token = token_create(user=user)
        expiry = instance.expiry.isoformat() if instance.expiry else "never"
        self.stdout.write(token)
        self.stderr.write(f"Token for {username}, expires {expiry}. It is not shown again.")
