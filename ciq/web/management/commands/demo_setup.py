"""``manage.py demo_setup``: the demo login and the Demo workspace with the samples."""

from __future__ import annotations

import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from ciq.models import Membership
from ciq.services import membership_add, workspace_get_or_create
from retrieval.models import Document
from retrieval.services import documents_ingest

DEFAULT_USERNAME = "demo"


class Command(BaseCommand):
    help = ("Create the demo user and the Demo workspace with the sample documents if "
            "absent (idempotent), and print the login.")

    def add_arguments(self, parser):
        parser.add_argument("--username", default=DEFAULT_USERNAME)
        parser.add_argument("--password", default=None,
                            help="Used only when the user is created; default: a random "
                                 "password, printed once (never a published one).")
        parser.add_argument("--workspace", default="Demo")
        parser.add_argument("--no-samples", action="store_true",
                            help="Leave the workspace empty (no sample ingest).")
        parser.add_argument("--url", default="http://127.0.0.1:8000/")

    def handle(self, *args, username, password, workspace, no_samples, url, **options):
        users = get_user_model()
        user = users.objects.filter(username=username).first()
        created = user is None
        if created:
            password = password or secrets.token_urlsafe(12)
            user = users.objects.create_user(username, password=password)
        space = workspace_get_or_create(name=workspace)
        membership_add(user=user, workspace=space, role=Membership.Role.OWNER)
        if not no_samples and not Document.objects.filter(workspace=space).exists():
            samples = Path(settings.BASE_DIR) / "samples"
            summary = documents_ingest(workspace=space, paths=[samples],
                                       manifest=samples / "manifest.csv")
            self.stdout.write(f"Ingested {summary.documents} sample document(s) into "
                              f"“{space.name}” ({summary.chunks} chunks, {summary.failed} failed).")
        login = f"{username} / {password}" if created else f"{username} (password unchanged)"
        self.stdout.write(self.style.SUCCESS(f"Open {url} and log in as {login}."))
