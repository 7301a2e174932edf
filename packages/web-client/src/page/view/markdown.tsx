// Agent Markdown rendered as elements built one by one: marked's lexer reads it, and nothing it produces is ever HTML
// (raw HTML in a message shows as text; links open only http(s) and mailto).
import { Lexer, type Token, type Tokens } from 'marked';
import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';

/** Longer messages are shown as plain text: parsing megabytes on every streamed chunk would freeze the page. */
export const MARKDOWN_LIMIT = 100_000;

const SAFE_LINK = /^(https?:|mailto:)/i;

function inline(tokens: readonly Token[] | undefined): ComponentChildren {
  if (tokens === undefined) return null;
  return tokens.map((token, index) => inlineToken(token, index));
}

function inlineToken(token: Token, key: number): ComponentChildren {
  switch (token.type) {
    case 'strong':
      return <strong key={key}>{inline((token as Tokens.Strong).tokens)}</strong>;
    case 'em':
      return <em key={key}>{inline((token as Tokens.Em).tokens)}</em>;
    case 'del':
      return <del key={key}>{inline((token as Tokens.Del).tokens)}</del>;
    case 'codespan':
      return <code key={key}>{(token as Tokens.Codespan).text}</code>;
    case 'br':
      return <br key={key} />;
    case 'link': {
      const link = token as Tokens.Link;
      const children = inline(link.tokens);
      return SAFE_LINK.test(link.href) ? (
        <a key={key} href={link.href} rel="noopener noreferrer nofollow" target="_blank">
          {children}
        </a>
      ) : (
        <span key={key}>{children}</span>
      );
    }
    case 'image': {
      // Images are not loaded (the page fetches from its own origin only): the alt text and the address are shown.
      const image = token as Tokens.Image;
      return <span key={key} class="image-ref">{`[image: ${image.text || image.href}]`}</span>;
    }
    case 'text': {
      const textToken = token as Tokens.Text;
      return textToken.tokens !== undefined ? inline(textToken.tokens) : textToken.text;
    }
    case 'escape':
      return (token as Tokens.Escape).text;
    default:
      // html and anything unknown: its source, as text.
      return token.raw;
  }
}

function block(token: Token, key: number): ComponentChildren {
  switch (token.type) {
    case 'space':
    case 'def':
      return null;
    case 'heading': {
      const heading = token as Tokens.Heading;
      // Message headings sit below the page's own (h1, h2): shifted down so the outline stays sensible.
      const level = Math.min(6, heading.depth + 2);
      const Tag = `h${level}` as 'h3';
      return <Tag key={key}>{inline(heading.tokens)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{inline((token as Tokens.Paragraph).tokens)}</p>;
    case 'code': {
      const code = token as Tokens.Code;
      return (
        <pre key={key} class="code" data-lang={code.lang || undefined}>
          <code>{code.text}</code>
        </pre>
      );
    }
    case 'blockquote':
      return <blockquote key={key}>{blocks((token as Tokens.Blockquote).tokens)}</blockquote>;
    case 'hr':
      return <hr key={key} />;
    case 'list': {
      const list = token as Tokens.List;
      const items = list.items.map((item, index) => (
        <li key={index}>
          {item.task ? <input type="checkbox" checked={item.checked} disabled aria-label="task" /> : null}
          {blocks(item.tokens)}
        </li>
      ));
      return list.ordered ? (
        <ol key={key} start={typeof list.start === 'number' ? list.start : undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'table': {
      const table = token as Tokens.Table;
      return (
        <div key={key} class="table-scroll">
          <table>
            <thead>
              <tr>
                {table.header.map((cell, index) => (
                  <th key={index}>{inline(cell.tokens)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {row.map((cell, index) => (
                    <td key={index}>{inline(cell.tokens)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case 'text': {
      const textToken = token as Tokens.Text;
      return (
        <span key={key}>{textToken.tokens !== undefined ? inline(textToken.tokens) : textToken.text}</span>
      );
    }
    default:
      // html blocks and anything unknown: the source as text, never markup.
      return <p key={key}>{token.raw}</p>;
  }
}

function blocks(tokens: readonly Token[]): ComponentChildren {
  return tokens.map((token, index) => block(token, index));
}

/** A message's Markdown as elements; past {@link MARKDOWN_LIMIT} characters, as preformatted text. */
export function Markdown({ source }: { source: string }) {
  // Lexed again only when the text changed: a redraw for another entry costs this message nothing.
  return useMemo(() => {
    if (source.length > MARKDOWN_LIMIT) return <pre class="plain">{source}</pre>;
    let tokens: Token[];
    try {
      tokens = new Lexer({ gfm: true }).lex(source);
    } catch {
      return <pre class="plain">{source}</pre>;
    }
    return <div class="markdown">{blocks(tokens)}</div>;
  }, [source]);
}
