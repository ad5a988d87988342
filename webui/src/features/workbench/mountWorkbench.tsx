// The project page's chunk keeps this path: the server names the chunk by it (server/web/pages.py).
// The workbench itself is the app (src/app/), which wires the features onto the kernel.
export { mountProject } from '../../app/mountProject';
