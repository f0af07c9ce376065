// One request to a worker thread of a demo application, answered by its next message (or its error). Shared by the
// demo applications, staged with them.

/** Posts `task` (transferring `transfer`) to `worker` and resolves with the worker's reply. */
export function callWorker(worker, task, transfer = []) {
  return new Promise((resolve, reject) => {
    const onError = (error) => {
      worker.off('message', onMessage);
      reject(error);
    };
    const onMessage = (result) => {
      worker.off('error', onError);
      resolve(result);
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
    worker.postMessage(task, transfer);
  });
}
