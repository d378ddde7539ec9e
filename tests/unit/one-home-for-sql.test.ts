import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// ADR 0033, "One home for SQL": the query builder, the driver's connection, raw SQL fragments and
// SQL text are used in server/db/ only. `npm run lint:deps` keeps the knex packages out of these
// folders; this keeps out what the ORM's own EntityManager hands out, and statements written out.
const FOLDERS = ['server/services', 'server/webhooks', 'server/instance'];
const QUERY_BUILDING = /createQueryBuilder|getKnex|getConnection\(|\.execute\(|\braw\(/;

/**
 * SQL as it is written here: a statement's keywords with what only SQL puts after them (a quoted
 * name, a subquery, a name and its SET), or a quoted table's column (`"f"."id"`). Prose that says
 * "select a file from the list" or "Delete" is not SQL.
 */
const SQL_SHAPE = new RegExp(
  [
    String.raw`\bselect\b[\s\S]*?\bfrom\s+(?:"|\(|\$\{|…)`,
    String.raw`\b(?:insert\s+into|delete\s+from|update|join)\s+"`,
    String.raw`\bupdate\s+\w+\s+set\b`,
    String.raw`"\w+"\."\w+"`,
  ].join('|'),
  'i',
);
// Written in capitals, a statement's keywords are SQL whatever follows.
const SQL_KEYWORDS = /\b(?:SELECT\b[\s\S]*\bFROM|INSERT INTO|UPDATE\s+\S+\s+SET|DELETE FROM)\b/;

/** What a `+` chain's part that is not a literal reads as. */
const EXPRESSION = '…';

function sourcesUnder(folder: string): string[] {
  return fs
    .readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(folder, name));
}

/**
 * The text of each string and template literal of a file, a `+` chain of them read as one (a
 * statement is often written over several lines, a part that is not a literal read as EXPRESSION)
 * and a template's `${…}` kept as it is written.
 */
function literalTexts(file: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const texts: Array<{ line: number; text: string }> = [];
  const textOf = (node: ts.Node): string | null => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isTemplateExpression(node)) return node.getText(source).slice(1, -1);
    if (ts.isParenthesizedExpression(node)) return textOf(node.expression);
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = textOf(node.left);
      const right = textOf(node.right);
      return left === null && right === null ? null : `${left ?? EXPRESSION}${right ?? EXPRESSION}`;
    }
    return null;
  };
  const visit = (node: ts.Node): void => {
    const text = textOf(node);
    if (text !== null) {
      texts.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return texts;
}

describe('where SQL is built', () => {
  it('when a service, the webhook deliverer or an instance part reaches the database, then it does so without the query builder or raw SQL', () => {
    const offending = FOLDERS.flatMap(sourcesUnder).flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (QUERY_BUILDING.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offending).toEqual([]);
  });

  it('when a service, the webhook deliverer or an instance part runs a statement, then its SQL text lives in server/db/', () => {
    const offending = FOLDERS.flatMap(sourcesUnder).flatMap((file) =>
      literalTexts(file)
        .filter(({ text }) => SQL_SHAPE.test(text) || SQL_KEYWORDS.test(text))
        .map(({ line, text }) => `${file}:${line}: ${text.slice(0, 80)}`),
    );
    expect(offending).toEqual([]);
  });
});
