"""Use cases that read and write the store: ingest, judging, comparisons, baselines, exports,
reviews, sweeps and the demo. The CLI and the dashboard call these; pure code never does."""
