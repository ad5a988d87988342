"""MNN-LLM on either side: the token loop and the model process, standard library + MNN only
(``MNN.llm`` needs numpy, so numpy is there too). The server and the device agent both run them."""
