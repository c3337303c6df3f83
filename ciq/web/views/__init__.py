"""Pages of the web workbench, one module per resource; each view parses input,
checks access through ``web.selectors``, calls one service and renders."""
