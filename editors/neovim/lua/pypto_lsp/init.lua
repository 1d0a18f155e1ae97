--- pypto-lsp for Neovim.
---
--- Two ways in, one behaviour:
---   * Neovim 0.11+: `lsp/pypto_lsp.lua` (next to this plugin's `lua/`) is picked up by
---     `vim.lsp.config`; call `vim.lsp.enable('pypto_lsp')`.
---   * Neovim 0.7-0.10: `require('pypto_lsp').setup({ cmd = {...} })` starts the server from a
---     FileType autocmd (`vim.lsp.start` on 0.8+, `vim.lsp.start_client` on 0.7).
--- Both attach with `on_attach` below, which keeps the outlined-function code lenses fresh:
--- Neovim never requests code lenses by itself.
local M = {}

--- Defaults shared by both set-ups.
M.defaults = {
  name = 'pypto_lsp',
  cmd = { 'pypto-lsp' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml', 'setup.cfg', 'setup.py', '.git' },
}

local has_010 = vim.fn.has('nvim-0.10') == 1


local function supports(client, key, legacy_key)
  local caps = client.server_capabilities
  if caps then
    return caps[key] ~= nil and caps[key] ~= false
  end
  return client.resolved_capabilities ~= nil and client.resolved_capabilities[legacy_key] == true
end

--- Neovim asks for document highlights only when told to: a captured variable's reads and
--- writes inside a scope light up (LspReferenceRead / LspReferenceWrite) when the cursor rests.
local function highlight_captures(bufnr)
  local group = vim.api.nvim_create_augroup('pypto_lsp_highlight_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'CursorHold', 'CursorHoldI' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      vim.lsp.buf.document_highlight()
    end,
  })
  vim.api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI', 'BufLeave' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      vim.lsp.buf.clear_references()
    end,
  })
end

local function refresh_code_lenses(bufnr)
  if has_010 then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  elseif vim.api.nvim_get_current_buf() == bufnr then
    -- before 0.10 refresh() only knows the current buffer
    vim.lsp.codelens.refresh()
  end
end

local OUTLINED_REQUEST = 'pypto/outlinedProgram'

--- A read-only scratch buffer named `name` holding `text` (reused when it exists).
local function scratch_buffer(name, text)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    -- syntax, not filetype: a python filetype would attach language servers to the view
    vim.bo[buf].syntax = 'python'
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  return buf
end

local function show_in_scratch(name, text)
  local buf = scratch_buffer(name, text)
  if vim.fn.bufwinid(buf) == -1 then
    vim.cmd('vsplit')
    vim.api.nvim_win_set_buf(0, buf)
  end
end

--- Shows the outlined program of `bufnr` (the server's `pypto/outlinedProgram`) in a read-only
--- scratch buffer `pypto-outlined://<file>` beside it.
function M.show_outlined_program(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local params = { uri = vim.uri_from_bufnr(bufnr) }
  vim.lsp.buf_request(bufnr, OUTLINED_REQUEST, params, function(err, result, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if not client or client.name ~= M.defaults.name then
      return
    end
    if err or type(result) ~= 'table' or type(result.text) ~= 'string' then
      vim.notify('pypto-lsp: no outlined program: ' .. tostring(err and err.message), vim.log.levels.WARN)
      return
    end
    show_in_scratch('pypto-outlined://' .. vim.api.nvim_buf_get_name(bufnr), result.text)
  end)
end

local TRACE_REQUEST = 'pypto/passTrace'

--- The stage of `program` named `wanted` (a key such as `incore`, or a dump file name), else the
--- last one that changed it; and the stage before it.
local function trace_stages(program, wanted)
  local chosen
  for _, stage in ipairs(program.stages) do
    if stage.key == wanted or stage.file == wanted or (wanted == nil and stage.key == program.lastChange) then
      chosen = stage
    end
  end
  chosen = chosen or program.stages[#program.stages]
  -- `index` counts from 0: the stage before is program.stages[index] in Lua's counting
  return program.stages[math.max(chosen.index, 1)], chosen
end

--- `:PyptoPassTrace [stage]`: the program under the cursor after `stage` (default: the last
--- stage that changed it) beside the stage before it, in diff mode, in a tab of its own
--- (the server's `pypto/passTrace`; buffers `pypto-trace://<file>/<program>/<NN_after_Pass>.py`).
function M.show_pass_trace(bufnr, stage)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  if stage == '' then
    stage = nil
  end
  local cursor = vim.api.nvim_win_get_cursor(0)
  local params = {
    uri = vim.uri_from_bufnr(bufnr),
    position = { line = cursor[1] - 1, character = cursor[2] },
  }
  vim.lsp.buf_request(bufnr, TRACE_REQUEST, params, function(err, result, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if not client or client.name ~= M.defaults.name then
      return
    end
    local program = type(result) == 'table' and type(result.programs) == 'table' and result.programs[1]
    if err or not program then
      vim.notify('pypto-lsp: no pass trace: ' .. tostring(err and err.message or 'no program here'), vim.log.levels.WARN)
      return
    end
    local before, after = trace_stages(program, stage)
    local prefix = 'pypto-trace://' .. vim.api.nvim_buf_get_name(bufnr) .. '/' .. program.name .. '/'
    local left = scratch_buffer(prefix .. before.file, before.text)
    local right = scratch_buffer(prefix .. after.file, after.text)
    vim.cmd('tabnew')
    local scratch_tab_buf = vim.api.nvim_get_current_buf()
    vim.api.nvim_win_set_buf(0, left)
    vim.cmd('diffthis')
    vim.cmd('vsplit')
    vim.api.nvim_win_set_buf(0, right)
    vim.cmd('diffthis')
    if scratch_tab_buf ~= left and scratch_tab_buf ~= right then
      pcall(vim.api.nvim_buf_delete, scratch_tab_buf, {})
    end
  end)
end

--- Adds `:PyptoOutlined` to the buffer and keeps its code lenses fresh: they are requested
--- again whenever a new analysis may have landed. The server publishes diagnostics after
--- every analysis, so DiagnosticChanged is the reliable "results changed" signal.
function M.on_attach(client, bufnr)
  vim.api.nvim_buf_create_user_command(bufnr, 'PyptoOutlined', function()
    M.show_outlined_program(bufnr)
  end, { desc = 'Show the outlined program of this file' })
  vim.api.nvim_buf_create_user_command(bufnr, 'PyptoPassTrace', function(opts)
    M.show_pass_trace(bufnr, opts.args)
  end, { nargs = '?', desc = 'Diff a stage of the pass pipeline with the one before it (default: the last that changed)' })
  -- completion through <C-x><C-o> (0.10+ sets it itself; before, nothing does)
  if vim.bo[bufnr].omnifunc == '' then
    vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc'
  end
  if supports(client, 'documentHighlightProvider', 'document_highlight') then
    highlight_captures(bufnr)
  end
  if not supports(client, 'codeLensProvider', 'code_lens') then
    return
  end
  local group = vim.api.nvim_create_augroup('pypto_lsp_codelens_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost', 'DiagnosticChanged' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      refresh_code_lenses(bufnr)
    end,
  })
  refresh_code_lenses(bufnr)
end

--- Chains the plugin's on_attach before the user's.
function M.make_on_attach(user_on_attach)
  return function(client, bufnr)
    M.on_attach(client, bufnr)
    if user_on_attach then
      user_on_attach(client, bufnr)
    end
  end
end

local function parent_of(path)
  local absolute = vim.fn.fnamemodify(path, ':p'):gsub('/+$', '')
  return vim.fn.fnamemodify(absolute, ':h')
end

--- Nearest folder holding one of `markers` (0.7 has no vim.fs), else the file's own folder.
local function find_root(bufnr, markers)
  local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':p:h')
  for _, marker in ipairs(markers) do
    local hit = vim.fn.findfile(marker, dir .. ';')
    if hit == '' then
      hit = vim.fn.finddir(marker, dir .. ';')
    end
    if hit ~= '' then
      return parent_of(hit)
    end
  end
  return dir
end

local clients_by_root = {}

local function attach_legacy(bufnr, config)
  if vim.api.nvim_buf_get_name(bufnr) == '' then
    return
  end
  local root = find_root(bufnr, config.root_markers)
  local start_config = vim.tbl_extend('force', config, { root_dir = root })
  if vim.lsp.start then -- 0.8+: reuses a running client with the same name and root
    vim.lsp.start(start_config, { bufnr = bufnr })
    return
  end
  local id = clients_by_root[root]
  local running = id and vim.lsp.get_client_by_id(id)
  if not running or running.is_stopped() then
    id = vim.lsp.start_client(start_config)
    clients_by_root[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

--- Neovim 0.7-0.10 set-up. `opts` may override any default and carry the usual client fields
--- (`settings`, `init_options`, `on_attach`, `capabilities`...).
function M.setup(opts)
  opts = opts or {}
  local config = vim.tbl_extend('force', M.defaults, opts)
  config.on_attach = M.make_on_attach(opts.on_attach)
  local group = vim.api.nvim_create_augroup('pypto_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      attach_legacy(args.buf, config)
    end,
  })
end

return M
