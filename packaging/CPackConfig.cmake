# Install rules and CPack (.deb with dpkg-shlibdeps, .tar.gz).
include(GNUInstallDirs)

set(PARAPLAN_APP_ID io.paraplan.Paraplan)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/resources/catalog" "${PROJECT_SOURCE_DIR}/resources/examples"
                  "${PROJECT_SOURCE_DIR}/resources/probe"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/paraplan")
install(FILES "${PROJECT_SOURCE_DIR}/packaging/${PARAPLAN_APP_ID}.desktop" DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
install(FILES "${PROJECT_SOURCE_DIR}/packaging/${PARAPLAN_APP_ID}.metainfo.xml" DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo")
install(FILES "${PROJECT_SOURCE_DIR}/packaging/${PARAPLAN_APP_ID}.mime.xml"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/mime/packages" RENAME "${PARAPLAN_APP_ID}.xml")
install(FILES "${PROJECT_SOURCE_DIR}/packaging/icons/paraplan.svg"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps" RENAME "${PARAPLAN_APP_ID}.svg")

# PNG icons rendered from the SVG at build time.
add_executable(paraplan-render-icon "${PROJECT_SOURCE_DIR}/packaging/render_icon.cpp")
target_link_libraries(paraplan-render-icon PRIVATE Qt6::Gui Qt6::Svg)
set(icon_outputs "")
foreach(size 16 32 48 64 128 256)
  set(out "${PROJECT_BINARY_DIR}/icons/${size}/${PARAPLAN_APP_ID}.png")
  add_custom_command(OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${PROJECT_BINARY_DIR}/icons/${size}"
    COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen $<TARGET_FILE:paraplan-render-icon>
            "${PROJECT_SOURCE_DIR}/packaging/icons/paraplan.svg" "${out}" ${size}
    DEPENDS paraplan-render-icon "${PROJECT_SOURCE_DIR}/packaging/icons/paraplan.svg" VERBATIM)
  list(APPEND icon_outputs "${out}")
  install(FILES "${out}" DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps")
endforeach()

# The man page comes from the same command table as `paraplan-cli --help`.
set(man "${PROJECT_BINARY_DIR}/man/paraplan-cli.1")
add_custom_command(OUTPUT "${man}"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${PROJECT_BINARY_DIR}/man"
  COMMAND $<TARGET_FILE:paraplan-cli> --man > "${man}"
  DEPENDS paraplan-cli VERBATIM)
# So do the bash and zsh completions (paraplan-cli --completion SHELL), installed where
# bash-completion and Debian's zsh look for them.
set(bash_completion "${PROJECT_BINARY_DIR}/completions/bash/paraplan-cli")
set(zsh_completion "${PROJECT_BINARY_DIR}/completions/zsh/_paraplan-cli")
add_custom_command(OUTPUT "${bash_completion}" "${zsh_completion}"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${PROJECT_BINARY_DIR}/completions/bash"
          "${PROJECT_BINARY_DIR}/completions/zsh"
  COMMAND $<TARGET_FILE:paraplan-cli> --completion bash > "${bash_completion}"
  COMMAND $<TARGET_FILE:paraplan-cli> --completion zsh > "${zsh_completion}"
  DEPENDS paraplan-cli VERBATIM)
add_custom_target(paraplan_packaging_assets ALL DEPENDS ${icon_outputs} "${man}" "${bash_completion}"
                  "${zsh_completion}")
install(FILES "${man}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
install(FILES "${bash_completion}" DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions")
install(FILES "${zsh_completion}" DESTINATION "${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}" OPTIONAL)
# The guides Help opens (Help > User Guide, Concepts Guide), with their pictures.
file(GLOB doc_pages "${PROJECT_SOURCE_DIR}/docs/*.md")
install(FILES ${doc_pages} DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/images" DESTINATION "${CMAKE_INSTALL_DOCDIR}")

set(CPACK_PACKAGE_NAME paraplan)
set(CPACK_PACKAGE_VENDOR "The Paraplan developers")
set(CPACK_PACKAGE_CONTACT "Paraplan developers <paraplan@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Topology designer for distributed training")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_PACKAGE_FILE_NAME "paraplan_${PROJECT_VERSION}_amd64")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openssh-client")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-torch, ffmpeg")
set(CPACK_STRIP_FILES ON)
include(CPack)
