-- Headless Neovim probe for tests/editors/test_neovim.py (Neovim 0.7+).
--
-- Loads the project's own Neovim set-up from editors/neovim, opens TARGET_FILE and reports what
-- the editor itself got from pypto-lsp: diagnostics (vim.diagnostic), code lenses (vim.lsp.codelens,
-- requested by the set-up's on_attach, never by this probe), the hover at PROBE_HOVER ("line:col",
-- 0-based), the buffer :PyptoOutlined opens, the omnifunc and highlight autocmds the set-up
-- leaves, a completion after `pl.Level.` and the line a rename at PROBE_RENAME leaves. Prints ONE JSON object on stdout; the pytest side
-- makes the assertions.
--
-- Environment: PYPTO_NVIM_PLUGIN (editors/neovim), PYPTO_NVIM_MODE ("config": vim.lsp.config +
-- vim.lsp.enable on 0.11+, "legacy": require('pypto_lsp').setup), PYPTO_LSP_CMD (JSON list),
-- TARGET_FILE, PROBE_HOVER, PROBE_RENAME, PROBE_TIMEOUT_MS.

local uv = vim.uv or vim.loop
local t0 = uv.hrtime()
local timeout = tonumber(os.getenv('PROBE_TIMEOUT_MS') or '20000')
local get_clients = vim.lsp.get_clients or vim.lsp.get_active_clients
local report = { steps = {} }

local function ms()
  return math.floor((uv.hrtime() - t0) / 1e6)
end

local function step(name)
  table.insert(report.steps, { name = name, t_ms = ms() })
end

local function emit_and_quit(code)
  io.stdout:write(vim.fn.json_encode(report) .. '\n')
  io.stdout:flush()
  vim.cmd(code == 0 and 'qall!' or 'cquit ' .. code)
end

local function stop_clients()
  for _, client in pairs(get_clients()) do
    if vim.fn.has('nvim-0.11') == 1 then
      client:stop()
    else
      client.stop()
    end
  end
  vim.wait(3000, function()
    return #get_clients() == 0
  end, 20)
end

local server_exit -- set when the server process ends, so waits stop early

local function on_exit(code, signal)
  server_exit = ('server exited with code %s, signal %s'):format(code, signal)
end

--- vim.wait until `done()` or the server died; true when done.
local function wait_for(done)
  vim.wait(timeout, function()
    return server_exit ~= nil or done()
  end, 20)
  return done()
end

local function start_editor_setup(mode, cmd)
  vim.opt.runtimepath:prepend(os.getenv('PYPTO_NVIM_PLUGIN'))
  if mode == 'config' then
    vim.lsp.config('pypto_lsp', { cmd = cmd, on_exit = on_exit })
    vim.lsp.enable('pypto_lsp')
  elseif mode == 'legacy' then
    require('pypto_lsp').setup({ cmd = cmd, on_exit = on_exit })
  else
    error('unknown PYPTO_NVIM_MODE ' .. tostring(mode))
  end
  vim.cmd('filetype on')
end

local function lens_records(bufnr)
  local records = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
    table.insert(records, { line = lens.range.start.line, title = lens.command and lens.command.title })
  end
  return records
end

local function all_titled(records)
  for _, r in ipairs(records) do
    if not r.title then
      return false
    end
  end
  return #records > 0
end

local function hover_text(bufnr, line, col)
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr), position = { line = line, character = col } }
  for _, resp in pairs(vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, timeout) or {}) do
    local contents = resp.result and resp.result.contents
    if type(contents) == 'string' then
      return contents
    elseif type(contents) == 'table' then
      return contents.value or vim.fn.json_encode(contents)
    end
  end
  return nil
end

local function run()
  report.nvim = tostring(vim.version().major .. '.' .. vim.version().minor .. '.' .. vim.version().patch)
  report.mode = os.getenv('PYPTO_NVIM_MODE')
  start_editor_setup(report.mode, vim.fn.json_decode(os.getenv('PYPTO_LSP_CMD')))
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('TARGET_FILE')))
  local bufnr = vim.api.nvim_get_current_buf()

  local client
  wait_for(function()
    for _, c in pairs(get_clients()) do
      if c.name == 'pypto_lsp' and c.initialized and vim.lsp.buf_is_attached(bufnr, c.id) then
        client = c
      end
    end
    return client ~= nil
  end)
  if not client then
    report.error = server_exit or ('no pypto_lsp client attached to the buffer within ' .. timeout .. ' ms')
    return
  end
  report.client = { name = client.name, root_dir = client.config.root_dir }
  step('attached')

  wait_for(function()
    return #vim.diagnostic.get(bufnr) > 0
  end)
  report.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp_data = d.user_data and d.user_data.lsp or {}
    table.insert(report.diagnostics, { line = d.lnum, col = d.col, message = d.message, code = d.code or lsp_data.code })
  end
  step('diagnostics')

  wait_for(function()
    return all_titled(lens_records(bufnr))
  end)
  report.lenses = lens_records(bufnr)
  step('code lenses')

  local line, col = (os.getenv('PROBE_HOVER') or '0:0'):match('^(%d+):(%d+)$')
  report.hover = hover_text(bufnr, tonumber(line), tonumber(col))
  step('hover')

  vim.cmd('PyptoOutlined')
  local outlined_name = 'pypto-outlined://' .. vim.api.nvim_buf_get_name(bufnr)
  wait_for(function()
    return vim.fn.bufnr(outlined_name) ~= -1
  end)
  local outlined = vim.fn.bufnr(outlined_name)
  if outlined ~= -1 then
    report.outlined = table.concat(vim.api.nvim_buf_get_lines(outlined, 0, -1, false), '\n')
  end
  step('outlined program')

  -- :PyptoPassTrace from the scope header (the hover position): a tab of two diffed stages
  vim.api.nvim_set_current_buf(bufnr)
  vim.api.nvim_win_set_cursor(0, { tonumber(line) + 1, tonumber(col) })
  vim.cmd('PyptoPassTrace incore')
  local trace_prefix = 'pypto-trace://' .. vim.api.nvim_buf_get_name(bufnr) .. '/Quickstart/'
  local right_name = trace_prefix .. '06_after_OutlineIncoreScopes.py'
  wait_for(function()
    return vim.fn.bufnr(right_name) ~= -1 and vim.fn.bufwinid(vim.fn.bufnr(right_name)) ~= -1
  end)
  local right = vim.fn.bufnr(right_name)
  if right ~= -1 then
    local windows = vim.api.nvim_tabpage_list_wins(0)
    report.trace = {
      right = table.concat(vim.api.nvim_buf_get_lines(right, 0, -1, false), '\n'),
      windows = {},
    }
    for _, win in ipairs(windows) do
      table.insert(report.trace.windows, {
        name = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)),
        diff = vim.wo[win].diff,
      })
    end
    vim.cmd('tabclose')
  end
  step('pass trace')

  -- the standard features, as the set-up leaves them: completion through omnifunc, document
  -- highlights on CursorHold, and a rename applied to the buffer
  report.omnifunc = vim.bo[bufnr].omnifunc
  report.highlight_autocmds = #vim.api.nvim_get_autocmds({ group = 'pypto_lsp_highlight_' .. bufnr })
  local last = vim.api.nvim_buf_line_count(bufnr)
  vim.api.nvim_buf_set_lines(bufnr, last, last, false, { 'x = pl.Level.' })
  local document = vim.lsp.util.make_text_document_params(bufnr)
  local params = { textDocument = document, position = { line = last, character = 13 } }
  report.completion = {}
  for _, resp in pairs(vim.lsp.buf_request_sync(bufnr, 'textDocument/completion', params, timeout) or {}) do
    local result = resp.result or {}
    for _, item in ipairs(result.items or result) do
      table.insert(report.completion, item.label)
    end
  end
  vim.api.nvim_buf_set_lines(bufnr, last, last + 1, false, {})
  step('completion')
  local rl, rc = (os.getenv('PROBE_RENAME') or '0:0'):match('^(%d+):(%d+)$')
  rl, rc = tonumber(rl), tonumber(rc)
  params = { textDocument = document, position = { line = rl, character = rc }, newName = 'head' }
  for _, resp in pairs(vim.lsp.buf_request_sync(bufnr, 'textDocument/rename', params, timeout) or {}) do
    if resp.result then
      vim.lsp.util.apply_workspace_edit(resp.result, client.offset_encoding or 'utf-16')
    end
  end
  report.renamed_line = vim.api.nvim_buf_get_lines(bufnr, rl, rl + 1, false)[1]
  step('rename')
  report.server_exit = server_exit
end

local ok, err = pcall(run)
if not ok then
  report.error = tostring(err)
end
stop_clients()
emit_and_quit(report.error and 1 or 0)
