// What kind of file a path names, as more than one feature asks it (the model tools, Lineage,
// Publish…): a model MNN converts or runs.
const MODEL_EXTENSIONS = ['.onnx', '.tflite', '.pb', '.caffemodel', '.prototxt', '.mnn'];

export const isModelFile = (path: string): boolean => MODEL_EXTENSIONS.some((ext) => path.toLowerCase().endsWith(ext));
