import { answersChoices } from './questions';
import { StatusUpdateDataSchema } from './updates';

describe('question options in a status update', () => {
  it('accepts a question with choices, a default among them and a timeout', () => {
    const data = {
      status: 'waiting_user',
      question: 'Ship?',
      choices: ['yes', 'no'],
      default: 'no',
      timeout_seconds: 60,
    };
    expect(StatusUpdateDataSchema.parse(data)).toEqual(data);
  });

  it('refuses a default outside the choices and a timeout without a default', () => {
    const outside = StatusUpdateDataSchema.safeParse({
      status: 'waiting_user',
      question: 'Ship?',
      choices: ['yes', 'no'],
      default: 'later',
    });
    expect(outside.error?.issues.map((i) => i.message)).toEqual(['default must be one of the choices']);
    const noDefault = StatusUpdateDataSchema.safeParse({
      status: 'waiting_user',
      question: 'Ship?',
      timeout_seconds: 60,
    });
    expect(noDefault.error?.issues.map((i) => i.message)).toEqual(['timeout_seconds needs a default']);
  });

  it('takes any answer without choices and only a listed one with them', () => {
    expect(answersChoices(null, 'anything')).toBe(true);
    expect(answersChoices(['yes', 'no'], 'no')).toBe(true);
    expect(answersChoices(['yes', 'no'], 'No')).toBe(false);
  });
});
