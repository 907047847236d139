# dask worker preload: this worker does not see the folder being imported (as a machine where
# the share is not mounted at the driver's path)
import rejudge.services._distributed_import

rejudge.services._distributed_import._sees = lambda folder: False
