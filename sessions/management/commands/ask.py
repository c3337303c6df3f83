"""``python manage.py ask "QUESTION" --workspace NAME``: one verified answer in the terminal."""

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from rich.console import Console

from ciq.models import Workspace
from ciq.selectors import workspace_get_by_name, workspace_list_for_user
from sessions.models import Mode, RunStatus, VerificationMode
from sessions.selectors import turn_as_dict
from sessions.services import session_ask
from sessions.terminal import render_turn


class Command(BaseCommand):
    help = "Ask a question over a workspace's documents; print the cited answer and its ledger."

    def add_arguments(self, parser):
        parser.add_argument("question")
        parser.add_argument("--workspace", required=True)
        parser.add_argument("--mode", choices=Mode.values, default=Mode.ANSWER)
        parser.add_argument("--verification", choices=VerificationMode.values,
                            default=VerificationMode.STRICT)
        parser.add_argument("--jurisdiction", action="append", default=[], metavar="CODE",
                            help="Target jurisdiction (repeatable), e.g. US-OR-Rivergrove.")
        parser.add_argument("--json", action="store_true", help="Print the whole turn as JSON.")
        parser.add_argument("--user", metavar="USERNAME",
                            help="Record the session as this member's (default: no user).")

    def handle(self, *args, **options):
        try:
            workspace = workspace_get_by_name(name=options["workspace"])
        except Workspace.DoesNotExist:
            raise CommandError(
                f"No workspace named {options['workspace']!r}: ingest documents into it first."
            ) from None
        user = self._member(options["user"], workspace) if options["user"] else None
        try:
            turn = session_ask(
                workspace=workspace, user=user, question=options["question"], mode=options["mode"],
                verification_mode=options["verification"],
                jurisdictions=options["jurisdiction"],
            )
        except ValidationError as exc:
            raise CommandError("; ".join(
                f"{field}: {' '.join(msgs)}" for field, msgs in exc.message_dict.items()
            )) from None
        data = turn_as_dict(turn=turn, with_events=options["json"])
        if options["json"]:
            self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str))
        else:
            # Piped output (make demo > log) gets a readable width instead of rich's 80 columns.
            width = None if self.stdout.isatty() else 120
            render_turn(data, Console(file=self.stdout, width=width))
        if turn.status == RunStatus.ERROR:
            raise CommandError(f"The run failed: {turn.error}")

    def _member(self, username: str, workspace: Workspace):
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.filter(username=username).first()
        if user is None or not workspace_list_for_user(user=user).filter(pk=workspace.pk).exists():
            raise CommandError(f"No member {username!r} in workspace {workspace.name!r}.")
        return user
