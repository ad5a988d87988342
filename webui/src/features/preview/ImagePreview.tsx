// An image file opened from the tree: shown as an image, with its size in pixels and bytes.
import { useState } from 'preact/hooks';
import { rawUrl } from '../../api/files';
import { pid } from '../../kernel/session';
import './preview.css';

function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function ImagePreview({ path, size }: { path: string; size: number }) {
  const [pixels, setPixels] = useState<string | null>(null);
  return (
    <div class="image-preview" data-testid="image-preview" data-path={path}>
      <img src={rawUrl(pid(), path)} alt={path} data-testid="image-preview-img"
        onLoad={(ev) => setPixels(`${ev.currentTarget.naturalWidth} × ${ev.currentTarget.naturalHeight}`)} />
      <div class="image-preview-info muted" data-testid="image-preview-info">{pixels ? `${pixels} · ` : ''}{formatSize(size)}</div>
    </div>
  );
}
