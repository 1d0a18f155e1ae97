-- Neovim 0.11+ native configuration for pypto-lsp, found by `vim.lsp.config` because this
-- folder is on 'runtimepath'. Enable it with `vim.lsp.enable('pypto_lsp')`; override any field
-- with `vim.lsp.config('pypto_lsp', { cmd = { '/path/to/venv/bin/pypto-lsp' } })`.
local plugin = require('pypto_lsp')

---@type vim.lsp.Config
return {
  cmd = plugin.defaults.cmd,
  filetypes = plugin.defaults.filetypes,
  root_markers = plugin.defaults.root_markers,
  on_attach = plugin.on_attach,
}
