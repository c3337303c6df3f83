"""The Skeptic's and Judge's prompts, beside their model backends
(:mod:`verification.model_skeptic`, :mod:`verification.model_judge`); each module has its
``PROMPT_VERSION`` and a ``build(...)`` returning a :class:`ciq.llm.Prompt`."""
