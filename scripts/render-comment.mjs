// Render a markdown report as GitHub shows a pull-request comment: GFM by `marked`, GitHub's
// stylesheet (`github-markdown-css`), in a page as wide as a comment. Used by
// scripts/render-comment.sh, which installs both packages next to a copy of this file.
//
//   node render-comment.mjs REPORT.md PAGE.html
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { marked } from "marked";

const [input, output] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const css = readFileSync(require.resolve("github-markdown-css/github-markdown-light.css"), "utf8");
const body = marked.parse(readFileSync(input, "utf8"), { gfm: true });
writeFileSync(
  output,
  `<!doctype html>
<html><head><meta charset="utf-8"><title>0</title>
<style>${css}
body { margin: 0; background: #fff; }
.comment { box-sizing: border-box; width: 900px; margin: 16px; border: 1px solid #d0d7de; border-radius: 6px; }
.comment-header { padding: 8px 16px; background: #f6f8fa; border-bottom: 1px solid #d0d7de;
  font: 14px -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; color: #59636e; }
.markdown-body { padding: 16px; }
</style></head>
<body><div class="comment"><div class="comment-header"><b>github-actions</b> bot commented</div>
<article class="markdown-body">${body}</article></div>
<script>document.title = String(Math.ceil(document.documentElement.scrollHeight));</script>
</body></html>
`,
);
