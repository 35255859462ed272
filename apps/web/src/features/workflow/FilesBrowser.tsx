// The files view lives in features/files; the run page imports it from here.
export { FilesBrowser, pathCrumbs } from '../files/FilesBrowser';
