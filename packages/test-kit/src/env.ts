/** The only environment the test kit reads: the PATH it hands on to the processes it starts. */
export const INHERITED_PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
