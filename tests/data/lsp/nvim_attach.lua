-- Headless Neovim (0.7+) driving `ptxlint lsp`: attach to a .cu buffer, wait for diagnostics,
-- ask for code actions on the first one, apply the preferred quick fix and wait for the
-- diagnostics to change. Writes what it saw as JSON to $PTXLINT_NVIM_OUT, then quits.
-- Inputs: $PTXLINT_NVIM_CMD (the server command, a JSON array), $PTXLINT_NVIM_FILE.
local out_path = os.getenv("PTXLINT_NVIM_OUT")
local result = { nvim = tostring(vim.version().major) .. "." .. tostring(vim.version().minor) }

local function lsp_diagnostic(d)
  -- vim.diagnostic's 0-based lnum/col (bytes; ASCII fixture) back to an LSP diagnostic.
  return {
    range = {
      start = { line = d.lnum, character = d.col },
      ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    },
    message = d.message,
    source = d.source,
  }
end

local function run()
  local cmd = vim.fn.json_decode(os.getenv("PTXLINT_NVIM_CMD"))
  local file = os.getenv("PTXLINT_NVIM_FILE")
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = "ptxlint",
    cmd = cmd,
    root_dir = vim.fn.fnamemodify(file, ":h"),
  })
  if not client_id then
    error("vim.lsp.start_client failed")
  end
  vim.lsp.buf_attach_client(buf, client_id)

  local got = vim.wait(30000, function()
    return #vim.diagnostic.get(buf) > 0
  end, 50)
  if not got then
    error("no diagnostics arrived")
  end
  local diagnostics = vim.diagnostic.get(buf)
  table.sort(diagnostics, function(a, b)
    return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
  end)
  result.diagnostics = {}
  for _, d in ipairs(diagnostics) do
    table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, source = d.source, message = d.message })
  end

  local first = lsp_diagnostic(diagnostics[1])
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(buf),
    range = first.range,
    context = { diagnostics = { first } },
  }
  local responses = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 30000) or {}
  result.actions = {}
  local preferred = nil
  for _, response in pairs(responses) do
    if response.error then
      error("codeAction failed: " .. vim.inspect(response.error))
    end
    for _, action in ipairs(response.result or {}) do
      table.insert(result.actions, action.title)
      if action.isPreferred and preferred == nil then
        preferred = action
      end
    end
  end

  if preferred and preferred.edit then
    local before = #diagnostics
    vim.lsp.util.apply_workspace_edit(preferred.edit, "utf-16")
    vim.wait(30000, function()
      return #vim.diagnostic.get(buf) < before
    end, 50)
    result.after_fix = #vim.diagnostic.get(buf)
  end
end

local ok, err = pcall(run)
if not ok then
  result.error = tostring(err)
end
vim.fn.writefile({ vim.fn.json_encode(result) }, out_path)
vim.cmd("qa!")
