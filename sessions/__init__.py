"""Research sessions: the pipeline orchestrator, Writer, working memory and reasoning trace."""
