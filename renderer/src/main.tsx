import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { applyTheme, storedTheme } from './api/theme';
import './styles.css';

applyTheme(storedTheme());
createRoot(document.getElementById('root')!).render(<StrictMode><App /></StrictMode>);
