import { splitBlocks } from './markdown-blocks';
import { MAX_MARKDOWN_CHARS, renderMarkdown } from './markdown';

/** The blocks a streaming body shows and the nodes each was rendered to. */
interface Shown {
  blocks: string[];
  nodes: ChildNode[][];
}

const streamed = new WeakMap<HTMLElement, Shown>();
const template = document.createElement('template');

/**
 * Shows `text` as markdown in `body`. While it streams, the blocks already shown keep their
 * nodes and only the blocks after the last unchanged one (usually just the growing last block)
 * are parsed and replaced: re-parsing the whole reply on every frame grows with its length.
 * A finished reply is parsed whole, once (renderMarkdown caches it).
 */
export function showMarkdown(body: HTMLElement, text: string, streaming: boolean): void {
  if (!streaming) {
    streamed.delete(body);
    body.innerHTML = renderMarkdown(text, false);
    return;
  }
  let shown = streamed.get(body);
  if (!shown) {
    shown = { blocks: [], nodes: [] };
    streamed.set(body, shown);
    body.replaceChildren();
  }
  // Past the limit the reply is plain text whole (renderMarkdown shows it so), as it will be when finished.
  const blocks = text.length > MAX_MARKDOWN_CHARS ? [text] : splitBlocks(text);
  let same = 0;
  while (same < blocks.length && same < shown.blocks.length && blocks[same] === shown.blocks[same]) same++;
  for (const nodes of shown.nodes.splice(same)) for (const node of nodes) node.remove();
  for (let i = same; i < blocks.length; i++) {
    template.innerHTML = renderMarkdown(blocks[i], true);
    shown.nodes.push([...template.content.childNodes]);
    body.append(template.content);
  }
  shown.blocks = blocks;
}
