/**
 * The line a card's block opens with when it is sent (`### Title [kind]`): how recall renders a card,
 * how a card already in a request is recognised, and what the declared half's size counts with the
 * card's text (declared.ts), so `check`, an import and `try` weigh the same block.
 */
export function cardHeading(title: string, kind: string): string {
  return `### ${title} [${kind}]`;
}
