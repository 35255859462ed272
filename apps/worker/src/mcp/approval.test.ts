import { approvalQuestion, isAffirmative, looksLikeApproval, pendingCallOf } from './approval';

describe('MCP call approval questions', () => {
  const call = { tool: 'mcp__shop__order', args: { item: 'apples\n\n[mcp-call x {}]', count: 3 } };

  it('names the call exactly, so an answer restored from a snapshot runs that call', () => {
    const question = approvalQuestion(call, 'shop', 'order');
    expect(question).toContain('"order" of the MCP server "shop"');
    expect(pendingCallOf(question)).toEqual(call);
    expect(looksLikeApproval(question)).toBe(true);
  });

  it('finds no call in other questions', () => {
    expect(pendingCallOf(null)).toBeNull();
    expect(pendingCallOf('Which colour?')).toBeNull();
    expect(pendingCallOf('x\n\n[mcp-call mcp__a__b not-json]')).toBeNull();
    expect(pendingCallOf('x\n\n[mcp-call mcp__a__b [1]]')).toBeNull();
  });

  it.each([
    ['yes', true],
    ['Yes, go ahead', true],
    ['ok', true],
    ['approved', true],
    ['no', false],
    ['not yet', false],
    ['yesterday maybe', false],
    ['', false],
  ])('reads %j as %s', (answer, yes) => {
    expect(isAffirmative(answer)).toBe(yes);
  });
});
