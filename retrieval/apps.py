from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "retrieval"
    verbose_name = "Retrieval"

    def ready(self) -> None:
        from retrieval import signals  # noqa: F401  (connects the lexical index's receivers)
