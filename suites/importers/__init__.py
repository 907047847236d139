"""Importers that turn other benchmarks' data into rejudge suites (BFCL: :mod:`.bfcl`)."""
