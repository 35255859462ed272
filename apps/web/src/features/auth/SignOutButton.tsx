import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { logout } from './api';
import { switchUser } from './session';
import { inBackground } from '../../lib/background';

export function SignOutButton() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: logout,
    onSettled: () => {
      switchUser(queryClient, null);
      inBackground(navigate('/'));
    },
  });
  return (
    <button type="button" className="link-button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
      Sign out
    </button>
  );
}
