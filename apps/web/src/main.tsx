import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { captureInvitationLink } from './features/projects/invitation-link';
import './styles.css';

// Before the router reads the address: an invitation link's token moves out of it (invitation-link.ts).
captureInvitationLink();

const root = document.getElementById('root');
if (!root) throw new Error('missing #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
