"""What a model needs around it to run on real data, shared by the server's tool workers and
the device agent (so it imports nothing of the server, and only the standard library and numpy):
the model spec (``spec``), turning files into input tensors by it (``preprocess``) and reading
outputs by it (``decode``). See docs/model-spec.md.
"""
