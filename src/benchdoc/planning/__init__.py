"""What a run will do, decided before anything runs: below both the runner and ``results``.

``plan`` turns an experiment, with its [servers] and [workloads] tables (checked by
``benchdoc.config.tables``), into the server launch and workload it will run (placeholders filled, sweeps as their levels),
``fingerprint`` hashes that plan (``results`` compares it with what each run recorded, to
tell a current result from a stale one) and ``jsonpath`` reads a command workload's numbers.
Nothing here starts a process or reads the ledger's runs.
"""
