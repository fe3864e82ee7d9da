-- Neovim (0.7+) as a second real LSP client: start `reuse-check lsp` with the built-in client,
-- open a file, wait for its diagnostics, and write them as JSON for e2e/neovim.test.mjs.
-- Environment: REUSE_CHECK_BIN, ROOT (the workspace folder), FILE (to open), OUT (JSON to write).
local bin, root, file, out = os.getenv('REUSE_CHECK_BIN'), os.getenv('ROOT'), os.getenv('FILE'), os.getenv('OUT')
local function finish(result)
  local f = assert(io.open(out, 'w'))
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd('qall!')
end

vim.cmd('edit ' .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = 'reuse-check',
  cmd = { bin, 'lsp' },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = 'ws' } },
})
if not client_id then
  finish({ error = 'the client did not start' })
  return
end
vim.lsp.buf_attach_client(bufnr, client_id)
local got = vim.wait(60000, function()
  return #vim.diagnostic.get(bufnr) > 0
end, 50)
local diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(diagnostics, {
    lnum = d.lnum,
    col = d.col,
    severity = d.severity,
    source = d.source,
    message = d.message,
    code = d.code or lsp.code,
  })
end
local client = vim.lsp.get_client_by_id(client_id)
finish({ waited = got, client = client and client.name or vim.NIL, diagnostics = diagnostics })
