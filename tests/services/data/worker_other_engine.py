# dask worker preload: this worker's rejudge judges with another engine version (as a machine
# with an older or newer rejudge installed would)
import rejudge.judge._engine

rejudge.judge._engine.ENGINE_VERSION = "0.9.0"
rejudge.judge.ENGINE_VERSION = "0.9.0"
