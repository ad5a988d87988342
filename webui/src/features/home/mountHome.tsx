// The home page's chunk keeps this path: the server names the chunk by it (server/web/pages.py).
// The app mounts the page with the other features' items (src/app/mountHome.tsx).
export { mountHome } from '../../app/mountHome';
