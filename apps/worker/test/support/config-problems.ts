import { ConfigError, parseConfigText } from '../../src/config';

type ParseContext = Parameters<typeof parseConfigText>[1];

/** The problems a config text is refused with (fails the test if it is accepted or fails otherwise). */
export function configProblems(text: string, ctx: ParseContext): string[] {
  try {
    parseConfigText(text, ctx);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}
