"""``manage.py recover [--every SECONDS]``: recover runs and ingests whose worker died
(``sessions.recovery.runs_recover``, ``retrieval.recovery.ingests_recover``). Once, or
every SECONDS until stopped (the ``recover`` process of the Procfile)."""

import time

from django.core.management.base import BaseCommand
from django.utils import timezone

from retrieval.recovery import ingests_recover
from sessions.recovery import runs_recover


class Command(BaseCommand):
    help = "Queue again, or fail with a clear error, the runs and ingests whose worker died."

    def add_arguments(self, parser):
        parser.add_argument("--every", type=float, default=0.0,
                            help="repeat every SECONDS (default: run once)")

    def handle(self, *args, every: float = 0.0, **options):
        while True:
            runs, ingests = runs_recover(), ingests_recover()
            if any(runs.values()) or any(ingests.values()) or not every:
                self.stdout.write(f"{timezone.now():%Y-%m-%d %H:%M:%S} runs: {runs['requeued']} requeued, "
                                  f"{runs['failed']} failed; ingests: {ingests['requeued']} requeued, "
                                  f"{ingests['failed']} failed")
            if not every:
                return
            time.sleep(every)
