/** The only environment the test kit reads: the PATH it hands on to the processes it starts. */
export const INHERITED_PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
/** Whether this is a jest test process (jest sets JEST_WORKER_ID in each, in-band runs included). */
export const UNDER_JEST = process.env.JEST_WORKER_ID !== undefined;
