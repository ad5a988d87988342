print("hello from MNN Workbench")
