"""``python manage.py train_judge --corpus DIR``: rebuild the Judge's classifier weights."""

import json
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from verification.classifier import WEIGHTS_FILE


class Command(BaseCommand):
    help = ("Generate training pairs from the corpus, rebuild the hand-written validation "
            "set's JSONL and fit the Judge's classifier (deterministic).")

    def add_arguments(self, parser):
        parser.add_argument("--corpus", type=Path, required=True,
                            help="The corpus folder with manifest.csv (ciq_legal_v1).")
        parser.add_argument("--out", type=Path, default=WEIGHTS_FILE)
        parser.add_argument("--pairs-out", type=Path,
                            help="Also write the generated training pairs as JSON Lines.")
        parser.add_argument("--handwritten-out", type=Path,
                            help="Also write the hand-written training pairs as JSON Lines "
                                 "(for `evaluate verification`: the training-set figures).")
        parser.add_argument("--no-minilm", action="store_true",
                            help="Only the model without MiniLM features.")

    def handle(self, *args, **options):
        from verification.training.fit import train
        from verification.training.legal_set import (
            TRAINING_FILE,
            build_legal_set,
            write_jsonl,
            write_legal_set,
        )
        from verification.training.pairs import generate_pairs

        corpus: Path = options["corpus"]
        if not (corpus / "manifest.csv").is_file():
            raise CommandError(f"--corpus {corpus}: no manifest.csv there.")
        started = time.perf_counter()
        count = write_legal_set(corpus)
        items = generate_pairs(corpus)
        handwritten = build_legal_set(corpus, TRAINING_FILE, dataset="handwritten")
        if options["handwritten_out"]:
            write_jsonl(options["handwritten_out"], handwritten)
        items += handwritten
        if options["pairs_out"]:
            write_jsonl(options["pairs_out"], items)
        from verification.training.corpus import document_text, manifest
        from verification.training.fit import document_idf

        idf = document_idf([document_text(corpus / path) for path in sorted(manifest(corpus))])
        weights = train(items, minilm=not options["no_minilm"], idf=idf)
        options["out"].write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
        self.stdout.write(
            f"validation set: {count} pairs; training: {weights['training']}; "
            f"weights → {options['out']} ({time.perf_counter() - started:.1f} s)"
        )
