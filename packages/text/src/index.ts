export { ByteTail } from './byte-tail';
export { decodeUtf8 } from './decode';
export { TextInputError, type TextInputErrorCode } from './errors';
export {
  truncateBytes,
  truncateChars,
  truncateCodePoints,
  truncateUtf8,
  type TruncateCodePointsResult,
  type TruncateOptions,
  type TruncateUtf8Result,
} from './truncate';
export {
  codePointLength,
  OMITTED_OUTPUT_MARKER,
  omittedOutputMarker,
  replaceLoneSurrogates,
  utf8ByteLength,
  utf8PrefixEnd,
  utf8SuffixStart,
} from './utf8';
export { SECRET_MASK, SECRET_MIN_LENGTH, SecretMasker, type MaskingStream } from './secret-mask';
