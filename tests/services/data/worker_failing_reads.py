# dask worker preload: every cassette this worker reads fails (as a worker with a broken disk
# or a bug in its rejudge would): the error is not a cassette error, so the task fails
import rejudge.services._distributed_import


def _failing(*args, **kwargs):
    raise RuntimeError("this worker's disk is failing")


rejudge.services._distributed_import.read_cassettes = _failing
