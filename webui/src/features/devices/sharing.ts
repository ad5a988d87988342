// The device whose share dialog is open (team mode: only a device's owner shares it).
import { signal } from '@preact/signals';
import type { Device } from '../../api/devices';

export const shareTarget = signal<Device | null>(null);
