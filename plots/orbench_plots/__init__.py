"""orbench's plotting stage: reads a run directory (summary.json, manifest.json) and writes figures and
report.html into it. It never runs a benchmark."""
