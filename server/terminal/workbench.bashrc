[ -f ~/.bashrc ] && . ~/.bashrc
if [ -n "$WORKBENCH_PYTHON_BIN" ]; then
  if [ -f "$WORKBENCH_PYTHON_BIN/activate" ]; then . "$WORKBENCH_PYTHON_BIN/activate"
  else PATH="$WORKBENCH_PYTHON_BIN:$PATH"; fi
fi
unset WORKBENCH_PYTHON_BIN
