"""API views: parse input, check access, call one service or selector, respond."""
