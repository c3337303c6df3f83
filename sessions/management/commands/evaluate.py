"""``python manage.py evaluate verification|retrieval|answers|memos``: benchmarks that print numbers."""

import json
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError
from rich.console import Console

from ciq.reporting import render_groups


class Command(BaseCommand):
    help = "Measure the Judge, the retriever or the whole pipeline on a labelled JSONL set."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="target", required=True)
        verification = sub.add_parser("verification", help="Judge verdicts vs labels.")
        verification.add_argument("--data", type=Path, required=True)
        verification.add_argument("--mode", choices=["strict", "helpful"], default="strict")
        verification.add_argument("--json", action="store_true")

        retrieval = sub.add_parser("retrieval", help="Recall@k and MRR of the retriever.")
        retrieval.add_argument("--data", type=Path, required=True)
        retrieval.add_argument("--corpus", type=Path, required=True)
        retrieval.add_argument("--k", default="1,5,10", help="Comma-separated cut-offs.")
        retrieval.add_argument("--workspace", help="Scratch workspace (default eval:<corpus>).")
        retrieval.add_argument("--retriever", choices=["lexical", "dense", "hybrid"], default="lexical",
                               help="Index to search; dense and hybrid embed with CIQ_EMBEDDER.")
        retrieval.add_argument("--no-routing", action="store_true",
                               help="User questions: ignore the places, acts and parties they name.")
        retrieval.add_argument("--no-rerank", action="store_true",
                               help="User questions: no query expansion and no answer-signal rerank.")
        retrieval.add_argument("--json", action="store_true")

        answers = sub.add_parser("answers", help="The whole pipeline per question.")
        answers.add_argument("--data", type=Path, required=True)
        answers.add_argument("--corpus", type=Path, required=True)
        answers.add_argument("--mode", choices=["answer", "draft"], default="answer")
        answers.add_argument("--verification", choices=["strict", "helpful"], default="strict")
        answers.add_argument("--limit", type=int, help="Only the first N questions.")
        answers.add_argument("--workspace", help="Scratch workspace (default eval:<corpus>).")
        answers.add_argument("--json", action="store_true")

        memos = sub.add_parser("memos", help="Draft memos scored on the memo rubric (issue 13).")
        memos.add_argument("--data", type=Path, required=True)
        memos.add_argument("--workspace", help="Evaluation workspace (default eval:ciq_legal_v1).")
        memos.add_argument("--corpus", type=Path, help="Ingest this corpus into the workspace first.")
        memos.add_argument("--limit", type=int, help="Only the first N requests.")
        memos.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        data: Path = options["data"]
        if not data.is_file():
            raise CommandError(f"--data {data}: no such file.")
        corpus = options.get("corpus")
        if corpus is not None and not corpus.is_dir():
            raise CommandError(f"--corpus {corpus}: no such folder.")
        console = Console(file=self.stdout, width=None if self.stdout.isatty() else 160)
        try:
            report, title = self._run(options, data, corpus)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2, default=str))
            return
        if "ingest" in report:
            console.print(f"corpus ingest: {report['ingest']}")
        if options["target"] == "verification":
            from verification.evaluation import render_verification_report

            render_verification_report(report, console)
        elif options["target"] == "memos":
            from sessions.memo_evaluation import render_memo_report

            render_memo_report(report, console)
        else:
            render_groups(title, report["groups"], console)

    def _run(self, options, data, corpus):
        target = options["target"]
        if target == "verification":
            from verification.evaluation import evaluate_verification

            return evaluate_verification(data, mode=options["mode"]), "Verification"
        if target == "retrieval":
            from retrieval.embedders import EmbeddingError
            from retrieval.evaluation import evaluate_retrieval

            try:
                ks = sorted({int(k) for k in options["k"].split(",") if k.strip()})
            except ValueError:
                raise CommandError(f"--k {options['k']!r}: give whole numbers, e.g. 1,5,10.") from None
            if not ks or ks[0] < 1:
                raise CommandError("--k needs cut-offs of at least 1.")
            from retrieval.evaluation import evaluate_user_retrieval, load_jsonl

            try:
                if any("answerable" in item for item in load_jsonl(data)[:1]):
                    report = evaluate_user_retrieval(
                        data=data, corpus=corpus, retriever=options["retriever"],
                        routing=not options["no_routing"], rerank=not options["no_rerank"],
                        workspace_name=options["workspace"],
                    )
                else:
                    report = evaluate_retrieval(
                        data=data, corpus=corpus, ks=ks, workspace_name=options["workspace"],
                        retriever=options["retriever"],
                    )
            except (ImproperlyConfigured, EmbeddingError) as exc:
                raise CommandError(str(exc)) from None
            retriever = options["retriever"]
            return report, "Retrieval" if retriever == "lexical" else f"Retrieval ({retriever})"
        if target == "memos":
            from sessions.memo_evaluation import evaluate_memos

            try:
                return evaluate_memos(data=data, workspace_name=options["workspace"], corpus=corpus,
                                      limit=options["limit"]), "Memos"
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        from sessions.evaluation import evaluate_answers

        report = evaluate_answers(
            data=data, corpus=corpus, mode=options["mode"],
            verification_mode=options["verification"], limit=options["limit"],
            workspace_name=options["workspace"],
        )
        return report, "Answers"
