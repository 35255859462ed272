/** The CLI's version; a test keeps it equal to package.json's (which names the packed tarball). */
export const CLI_VERSION = '0.1.0';
