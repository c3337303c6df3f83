from django.apps import AppConfig


class SessionsConfig(AppConfig):
    # ``sessions`` collides with django.contrib.sessions (DESIGN.md §2).
    name = "sessions"
    label = "ciq_sessions"
    verbose_name = "Research sessions"
