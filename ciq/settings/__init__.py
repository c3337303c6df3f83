"""Settings package: ``base`` holds everything; ``dev``, ``test`` and ``prod`` differ only in a few lines.

Production differs from development only through environment variables (STYLE.md habit 4).
"""
