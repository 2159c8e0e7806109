"""Running a task on a model into a run folder: options, the call path (cache, limits,
retries), the item path (stages, reading, records), progress, cost, sweeps.

Public face: ``RunOptions``, ``run_task``, ``arun_task``, ``resume_run``, ``aresume_run``
(from :mod:`relreason.run.runner`)."""
